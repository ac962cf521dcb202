"""xrelay.tools"""

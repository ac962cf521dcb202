"""xrelay.frontend"""

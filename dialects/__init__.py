"""xrelay.dialects"""

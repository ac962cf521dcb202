"""xrelay.transforms"""

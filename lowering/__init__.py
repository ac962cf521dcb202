"""xrelay.lowering"""

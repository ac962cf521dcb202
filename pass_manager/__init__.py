"""xrelay.pass_manager"""

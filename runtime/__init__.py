"""xrelay.runtime: executing compiled or interpreted modules."""

from xrelay.runtime.interpreter import InterpreterError, interpret

__all__ = ["InterpreterError", "interpret"]

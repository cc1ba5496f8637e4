"""Exceptions of the live session: each names one kind of failure."""

from __future__ import annotations


class SessionError(Exception):
    """Base of every live-session error."""


class SessionConfigError(SessionError, ValueError):
    """A `[session]` setting with a bad value or an unknown name; the message names the key."""


class SourceError(SessionError):
    """A frame source that cannot be opened at all (no such file or folder, no Picamera2)."""


class NoVisionError(SessionError):
    """No camera pipeline (board reader) is installed, so live frames cannot be read."""


class ScriptError(SessionError, ValueError):
    """A scripted-observation file that cannot be read: bad JSON or an invalid observation."""

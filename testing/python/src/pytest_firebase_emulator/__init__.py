"""pytest-firebase-emulator: every test gets its own project in one running Firebase-style emulator.

Fixtures (registered by the ``pytest11`` entry point): ``firebase_emulator`` (session),
``firebase_project`` (per test), ``firebase_module_project``, ``firebase_snapshot``, and the
shortcuts ``firestore_client``, ``firestore_async_client``, ``firebase_app``, ``firebase_auth``,
``firebase_users``, ``firebase_rules``, ``firebase_clock``, ``firebase_faults``.
See docs/testing.md in the emulator's repository.
"""
from .control import ControlPlane, EmulatorError
from .emulator import EmulatorNotFound, FirebaseEmulator
from .project import FirebaseProject
from .users import TestUser

__version__ = "0.1.0"
__all__ = ["ControlPlane", "EmulatorError", "EmulatorNotFound", "FirebaseEmulator", "FirebaseProject", "TestUser"]

"""`from uno_env import uno_v0` as with PettingZoo's classic envs: `uno_v0.env()`, `uno_v0.raw_env()`."""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]

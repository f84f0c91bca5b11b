import os

# PettingZoo's test utilities import pygame; keep it headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

# uno_env sets OMP_WAIT_POLICY=PASSIVE on import; that only takes effect if it comes before torch.
import uno_env  # noqa: E402, F401

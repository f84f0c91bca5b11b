import os

# PettingZoo's test utilities import pygame; keep it headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

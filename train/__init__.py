"""Training scripts: native PPO, Stable-Baselines3 MaskablePPO and RLlib."""

"""Reference trainers on TRL: SFT with CuSeT weighting, and RL with verifier rewards."""

"""Validates submitted runs and renders the static HTML leaderboard."""

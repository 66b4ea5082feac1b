"""Synthesizes kernel tasks, verifies teacher solutions and publishes datasets to the Hub."""

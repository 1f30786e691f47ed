"""Test support: builders of realistic test data shared by several test modules."""

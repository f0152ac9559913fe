"""The hostile-input campaign behind utils/hostile-inputs.py (docs/robustness.md)."""

"""Visible checks, one module per lesson step: each runs small cases and speaks plainly."""

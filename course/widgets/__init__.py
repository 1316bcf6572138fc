"""Widgets that let a student explore what each step built, one module per step."""

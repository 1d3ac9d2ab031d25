"""Screens and dialogs of the app: file picker, help, export, save profile."""

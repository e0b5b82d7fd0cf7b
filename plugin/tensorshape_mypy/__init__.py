"""mypy plugin"""

"""rk's tests; helpers are imported as ``tests.support``, ``tests.integration`` and so on."""

import slinky


def test_version_matches_library():
    v = slinky.version()
    assert v.count(".") == 2
    assert all(part.isdigit() for part in v.split("."))


def test_error_hierarchy():
    assert issubclass(slinky.NotFoundError, slinky.Error)
    assert issubclass(slinky.ParseError, slinky.Error)
    assert slinky.NotFoundError is not slinky.ConflictError

import slinky


def test_version_matches_library():
    v = slinky.version()
    assert v.count(".") == 2
    assert all(part.isdigit() for part in v.split("."))


def test_error_hierarchy():
    assert issubclass(slinky.NotFoundError, slinky.Error)
    assert issubclass(slinky.ParseError, slinky.Error)
    assert slinky.NotFoundError is not slinky.ConflictError


def test_module_namespaces_do_not_collide():
    # model and conf both have get(); each keeps its own
    assert slinky.model.get is not slinky.conf.get
    assert callable(slinky.conf.check) and callable(slinky.model.validate)
    assert not hasattr(slinky, "set")  # no builtin shadowing at the top level
    for name in ("loads_yaml", "dumps_json", "Client", "Ledger", "JailSpec"):
        assert hasattr(slinky, name), name

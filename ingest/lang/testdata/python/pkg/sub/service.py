"""Service module docstring."""
import os
import os.path as osp
from typing import Optional, List
from . import models
from ..core.db import Database as DB, connect
from .helpers import *


# Helper comment above.
def helper(x: int, name="n") -> Optional["Result"]:
    """Compute a helper value.

    More detail here.
    """
    r = Result(x)
    print(len(name))
    return r


class Service(Base, mixins.Loggable, metaclass=Meta):
    """A service."""

    timeout: float = 3.0
    objects = Manager()

    def __init__(self, db: DB, cache=None):
        self.db = db
        self.repo = Repository(db)
        self.cache: Cache = cache
        self._hooks = []

    def do_work(self, items: List[str]) -> "Report":
        self.db.query("x")
        Service(self.db).do_work(items)
        out = build_report(items)
        items.sort(key=self._key)
        self.run(callback=helper)

        def inner(y):
            return transform(y)

        return inner(out)

    @staticmethod
    def _key(v):
        return v

    @app.route("/x")
    def routed(self):
        pass

    class Inner:
        def method(self):
            self.go()


class Proto(typing.Protocol):
    def speak(self) -> str: ...


svc = Service(connect())
svc.do_work([])

"""Order services."""


class Base:
    """Common base."""

    def close(self):
        pass


class Service(Base):
    """Does the work."""

    def __init__(self, db):
        self.db = db

    def do_work(self, order):
        """Validate and save an order."""
        self._check(order)
        return self.db.save(order)

    def _check(self, order):
        if not order:
            raise ValueError("empty order")


def make_service(db):
    return Service(db)

from .service import Service, make_service


def run(db, order):
    Service(db).do_work(order)
    return make_service(db)


if __name__ == "__main__":
    run(None, {"id": 1})

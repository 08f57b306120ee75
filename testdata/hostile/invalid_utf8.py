# -*- coding: utf-8 -*-
def invalid_utf8_python():
    return "À¯í €"

class BadÿClass:
    pass

package y

func Vendored() {}

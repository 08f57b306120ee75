package hostile

// Comment with invalid UTF-8: ÿşÃ( and a lone continuation €.
func InvalidUTF8Holder() string {
	return "ÿşı"
}

func caféName() {}

package web

// reset clears the context; Context is declared in another file.
func (c *Context) reset(w ResponseWriter, r *Request) {
	c.handlers = nil
}

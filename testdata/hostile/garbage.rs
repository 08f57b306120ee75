fn ( { [ < impl struct } ) ] >>> fn fn fn
"unterminated
/* unterminated comment

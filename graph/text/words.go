package text

// StopWords are the English words that carry no meaning in a code search
// query ("where is the code that handles the login" → code handles login).
// Kuzu's default list is not used because it also drops words that name
// things in code; these are deliberately NOT stop words: for, if, not, is,
// has, can, get, set, new, use, value, name, first, last, all, any, each, do,
// with, from, to, by, as, in, on, of (they occur in identifiers: isValid,
// hasNext, canRetry, forEach, fromJSON, toString, getById, doRequest). They
// are kept so that a query word is never dropped on one side but indexed on
// the other: the search pack's index drops this same list (query.BuildPack).
var StopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true,
	"this": true, "that": true, "these": true, "those": true,
	"it": true, "its": true, "i": true, "me": true, "my": true, "we": true,
	"our": true, "you": true, "your": true, "he": true, "she": true,
	"they": true, "them": true, "their": true,
	"what": true, "which": true, "who": true, "whom": true, "whose": true,
	"where": true, "when": true, "how": true, "why": true,
	"there": true, "here": true, "than": true, "so": true, "such": true,
	"very": true, "just": true, "also": true, "please": true,
	"am": true, "are": true, "was": true, "were": true, "be": true,
	"been": true, "being": true, "does": true, "did": true, "doing": true,
	"would": true, "could": true, "should": true, "shall": true,
	"might": true, "must": true, "about": true, "into": true, "onto": true,
	"upon": true, "some": true, "somewhere": true, "something": true,
	"code": true, "find": true, "show": true,
}

// PhraseAliases maps two words written apart to the one word code spells
// them as; the query's two words are replaced by it: "read system call"
// searches read and syscall (a function a SYSCALL_DEFINEn macro defines
// is a syscall), not every symbol of "system" and of "call". Keys are
// two lower-case words joined by a space; values [a-z0-9] words.
var PhraseAliases = map[string][]string{
	"system call":  {"syscall"},
	"system calls": {"syscall"},
}

// Aliases maps an abbreviation or a common variant to the words it stands
// for. Query tokens found here are expanded (the original is kept too):
// "k8s" also searches "kubernetes", "auth" also "authentication" and
// "authorization". Keys and values are lower-case [a-z0-9] words.
var Aliases = map[string][]string{
	"k8s":    {"kubernetes"},
	"system": {"sys"}, // sys_read, SYSCALL_DEFINE: "read system call"
	"i18n":   {"internationalization"},
	"l10n":   {"localization"},
	"auth":   {"authentication", "authorization"},
	"authn":  {"authentication"},
	"authz":  {"authorization"},
	"db":     {"database"},
	"repo":   {"repository"},
	"cfg":    {"config", "configuration"},
	"conf":   {"config", "configuration"},
	"config": {"configuration"},
	"env":    {"environment"},
	"msg":    {"message"},
	"req":    {"request"},
	"resp":   {"response"},
	"res":    {"response", "result"},
	"err":    {"error"},
	"ctx":    {"context"},
	"impl":   {"implementation", "implement"},
	"init":   {"initialize", "initialise"},
	"args":   {"arguments"},
	"arg":    {"argument"},
	"param":  {"parameter"},
	"params": {"parameters"},
	"fn":     {"function"},
	"func":   {"function"},
	"util":   {"utility"},
	"utils":  {"utilities"},
	"str":    {"string"},
	"num":    {"number"},
	"dir":    {"directory"},
	"tmp":    {"temporary"},
	"pkg":    {"package"},
	"lib":    {"library"},
	"info":   {"information"},
	"spec":   {"specification"},
	"regex":  {"regexp", "regular", "expression"},
	"regexp": {"regex", "regular", "expression"},
	"tx":     {"transaction"},
	"txn":    {"transaction"},
	"src":    {"source"},
	"dst":    {"destination"},
	"proc":   {"process"},
	"mgr":    {"manager"},
	"svc":    {"service"},
	"srv":    {"server"},
	"addr":   {"address"},
	"conn":   {"connection"},
	"cmd":    {"command"},
	"attr":   {"attribute"},
	"attrs":  {"attributes"},
	"val":    {"value"},
	"var":    {"variable"},
	"doc":    {"document", "documentation"},
	"docs":   {"documentation"},
	"js":     {"javascript"},
	"ts":     {"typescript"},
	"py":     {"python"},
	"ws":     {"websocket"},
	"mw":     {"middleware"},
	"cb":     {"callback"},
	"async":  {"asynchronous"},
	"sync":   {"synchronous"},
	"del":    {"delete"},
	"rm":     {"remove"},
	"ptr":    {"pointer"},
	"buf":    {"buffer"},
	"len":    {"length"},
	"idx":    {"index"},
	"opts":   {"options"},
	"opt":    {"option"},
	"perm":   {"permission"},
	"perms":  {"permissions"},
	"stats":  {"statistics"},
	"tpl":    {"template"},
	"tmpl":   {"template"},
	"eval":   {"evaluate"},
	"exec":   {"execute"},
	"gen":    {"generate"},
	"calc":   {"calculate"},
	"oauth2": {"oauth"},
}

package lang

/*
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// gnLanguage is layout-identical to tree-sitter's struct TSLanguage
// (lib/src/parser.h, ABI 15). An ABI 14 grammar's struct is the same up to
// primary_state_ids and ends there.
typedef struct {
	uint32_t abi_version;
	uint32_t symbol_count;
	uint32_t alias_count;
	uint32_t token_count;
	uint32_t external_token_count;
	uint32_t state_count;
	uint32_t large_state_count;
	uint32_t production_id_count;
	uint32_t field_count;
	uint16_t max_alias_sequence_length;
	const uint16_t *parse_table;
	const uint16_t *small_parse_table;
	const uint32_t *small_parse_table_map;
	const void *parse_actions, *symbol_names, *field_names, *field_map_slices,
		*field_map_entries, *symbol_metadata, *public_symbol_map, *alias_map,
		*alias_sequences, *lex_modes;
	void (*lex_fn)(void);
	void (*keyword_lex_fn)(void);
	uint16_t keyword_capture_token;
	struct {
		const void *states, *symbol_map;
		void (*create)(void), (*destroy)(void), (*scan)(void), (*serialize)(void), (*deserialize)(void);
	} external_scanner;
	const void *primary_state_ids;
	const char *name;
	const void *reserved_words;
	uint16_t max_reserved_word_set_size;
	uint32_t supertype_count;
	const void *supertype_symbols, *supertype_map_slices, *supertype_map_entries;
	struct { uint8_t major_version, minor_version, patch_version; } metadata;
} gnLanguage;

// gn_dense_size is the bytes of lang's parse table with every state dense.
static size_t gn_dense_size(const void *lang) {
	const gnLanguage *l = lang;
	return (size_t)l->state_count * l->symbol_count * sizeof(uint16_t);
}

// gn_dense_language is a copy of lang (ABI 14 or 15) whose every parse
// state is in the dense table: each small state's compressed entries
// written out at [state][symbol], the first entry for a symbol winning as
// in ts_language_lookup's scan. NULL when memory runs out. Neither the
// copy nor its table is ever freed: like the grammar's own tables they
// serve every parser for the rest of the process.
static const void *gn_dense_language(const void *lang) {
	const gnLanguage *l = lang;
	size_t size = l->abi_version >= 15 ? sizeof(gnLanguage) : offsetof(gnLanguage, name);
	gnLanguage *d = calloc(1, sizeof(gnLanguage));
	uint16_t *t = calloc(gn_dense_size(lang) + sizeof(uint16_t), 1);
	if (!d || !t) {
		free(d);
		free(t);
		return NULL;
	}
	memcpy(d, l, size);
	memcpy(t, l->parse_table, (size_t)l->large_state_count * l->symbol_count * sizeof(uint16_t));
	for (uint32_t s = l->large_state_count; s < l->state_count; s++) {
		const uint16_t *data = &l->small_parse_table[l->small_parse_table_map[s - l->large_state_count]];
		uint16_t *row = &t[(size_t)s * l->symbol_count];
		uint16_t groups = *data++;
		for (uint16_t g = 0; g < groups; g++) {
			uint16_t value = *data++, count = *data++;
			for (uint16_t j = 0; j < count; j++) {
				uint16_t sym = *data++;
				if (sym < l->symbol_count && row[sym] == 0) row[sym] = value;
			}
		}
	}
	d->parse_table = t;
	d->large_state_count = l->state_count;
	return d;
}
// gn_free_dense frees a copy gn_dense_language made.
static void gn_free_dense(const void *dense) {
	const gnLanguage *d = dense;
	free((void *)d->parse_table);
	free((void *)d);
}

// Declared by tree-sitter's lib/src/language.h and api.h; defined in the
// go-tree-sitter package's C objects, linked into the same binary.
typedef struct {
	const void *actions;
	uint32_t action_count;
	bool is_reusable;
} gnTableEntry;
extern void ts_language_table_entry(const void *self, uint16_t state, uint16_t symbol, gnTableEntry *result);
extern uint16_t ts_language_next_state(const void *self, uint16_t state, uint16_t symbol);
extern const char *ts_language_name(const void *self);
extern const void *ts_language_metadata(const void *self);

// gn_same_table reports whether the runtime finds the same parse actions
// (terminals) and next states (nonterminals) in d as in l for every
// symbol of every stride-th state, and the same name and metadata.
static int gn_same_table(const void *lang, const void *dense, uint32_t stride) {
	const gnLanguage *l = lang, *d = dense;
	if (d->abi_version != l->abi_version || d->symbol_count != l->symbol_count ||
	    d->token_count != l->token_count || d->state_count != l->state_count ||
	    ts_language_name(dense) != ts_language_name(lang)) {
		return 0;
	}
	const uint8_t *ma = ts_language_metadata(lang), *mb = ts_language_metadata(dense);
	if ((ma == NULL) != (mb == NULL) || (ma && memcmp(ma, mb, 3) != 0)) {
		return 0;
	}
	for (uint32_t s = 0; s < l->state_count; s += stride) {
		for (uint32_t sym = 0; sym < l->symbol_count; sym++) {
			if (sym < l->token_count) {
				gnTableEntry a, b;
				ts_language_table_entry(lang, s, sym, &a);
				ts_language_table_entry(dense, s, sym, &b);
				if (a.actions != b.actions || a.action_count != b.action_count || a.is_reusable != b.is_reusable) {
					return 0;
				}
			} else if (ts_language_next_state(lang, s, sym) != ts_language_next_state(dense, s, sym)) {
				return 0;
			}
		}
	}
	return 1;
}
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The dense parse table.
//
// A tree-sitter grammar stores its parse table in two forms: a dense
// state × symbol array for its first large_state_count states, and for
// the others a compressed list per state that ts_language_lookup scans
// entry by entry on every lookup. Most of C's 2,015 states are small ones
// (1,560), and on the Linux kernel's kernel/ that scan
// (ts_language_table_entry) was an eighth of tree-sitter's parse time
// (perf). fastGrammar gives the parsers a copy of the grammar whose every
// state is in the dense table: the same actions, found by one index; the
// scan's share falls to a twentieth, and the parse of kernel/ ran faster
// in each of six alternated pairs (3.9-5.1 against 3.4-4.5 MB/s; a whole
// analyze of fs, kernel, mm and include, 9,242 files: user time 74.1-75.0
// against 75.9-79.9 s, three alternated pairs). Trees are the same: the
// parser reads the table only through the lookup (ts_language_table_entry,
// ts_language_next_state, has_actions), whose every answer
// TestFastGrammarSameTables compares between a grammar and its copy;
// TestFastGrammarSameTrees compares whole trees, broken code included.
// (Only the lookahead iterator and query analysis, which gitnexus does not
// use, walk a state's entries: in symbol order for a dense state rather
// than grouped by action.) gnLanguage copies the struct of the tree-sitter
// that go.mod pins (go-tree-sitter v0.25.0); a binding upgrade must check
// it against lib/src/parser.h.
//
// The copy costs state_count × symbol_count × 2 bytes for the process's
// life, once per grammar a run parses with: C 1.4 MiB, TypeScript 4.3,
// C++ 8.9, C# 9.5; a grammar whose table would pass maxDenseTable keeps
// its own.
var (
	denseMu    sync.Mutex
	denseCache = map[unsafe.Pointer]*sitter.Language{}
)

// maxDenseTable is the largest dense table fastGrammar makes, in bytes.
const maxDenseTable = 32 << 20

// fastGrammar is g with its whole parse table dense (see above), made once
// per grammar; g itself when its ABI is not one whose layout gnLanguage
// copies (14, 15), its table would pass maxDenseTable, memory runs out,
// or tree-sitter does not read the copy's table as g's (sameTable).
func fastGrammar(g *sitter.Language) *sitter.Language {
	if g == nil || g.Inner == nil {
		return g
	}
	key := unsafe.Pointer(g.Inner)
	denseMu.Lock()
	defer denseMu.Unlock()
	if d, ok := denseCache[key]; ok {
		return d
	}
	d := g
	if abi := g.AbiVersion(); (abi == 14 || abi == 15) && C.gn_dense_size(key) <= maxDenseTable {
		if p := C.gn_dense_language(key); p != nil {
			if c := sitter.NewLanguage(unsafe.Pointer(p)); sameTable(g, c, g.ParseStateCount()/64) {
				d = c
			} else {
				C.gn_free_dense(p)
			}
		}
	}
	denseCache[key] = d
	return d
}

// sameTable reports whether tree-sitter reads the same parse table from d,
// a dense copy of g, as from g: the actions and next states of every
// symbol in every stride-th state, and the fields a wrong layout would
// move. fastGrammar checks 64 states spread over the table before it uses
// a copy; the tests check every state (stride 1).
func sameTable(g, d *sitter.Language, stride uint32) bool {
	return C.gn_same_table(unsafe.Pointer(g.Inner), unsafe.Pointer(d.Inner), C.uint32_t(max(stride, 1))) == 1
}

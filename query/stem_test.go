package query

import "testing"

// TestAgentNounStem: a code name for what does a job (hasher, matcher,
// parser, handler) meets the job's verb; short words keep their "-er".
func TestAgentNounStem(t *testing.T) {
	s := stemmer{}
	for _, pair := range [][2]string{{"hasher", "hash"}, {"hashers", "hashing"}, {"matcher", "match"}, {"parser", "parse"}, {"handler", "handle"}} {
		if a, b := s.term(pair[0]), s.term(pair[1]); a != b {
			t.Errorf("stem(%q) = %q, stem(%q) = %q: want them equal", pair[0], a, pair[1], b)
		}
	}
	for _, w := range []string{"user", "order", "layer"} {
		if st := s.term(w); st != w {
			t.Errorf("stem(%q) = %q: a short word keeps its -er", w, st)
		}
	}
}

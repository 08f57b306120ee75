package embed

import "unicode/utf8"

// wordPiece appends the ids of one pre-tokenized word: greedy
// longest-match-first over the vocabulary, continuation pieces looked up
// without their "##" prefix. A word longer than maxWordChars runes, or one
// with any span no piece matches, becomes a single [UNK].
func (t *Tokenizer) wordPiece(ids []int32, word string) []int32 {
	if word == "" {
		return ids
	}
	if utf8.RuneCountInString(word) > t.maxWordChars {
		return append(ids, t.unk)
	}
	mark := len(ids)
	for start := 0; start < len(word); {
		table := t.vocab
		if start > 0 {
			table = t.cont
		}
		end := len(word)
		found := false
		for end > start {
			if id, ok := table[word[start:end]]; ok {
				ids = append(ids, id)
				found = true
				break
			}
			// step back one whole rune
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if !found {
			return append(ids[:mark], t.unk)
		}
		start = end
	}
	return ids
}

package embed

import "math"

// poolCLS takes the hidden state of the first token ([CLS]) of each row of
// a row-major [rows, seqLen, hidden] tensor and L2-normalises it. The
// result does not alias hs.
func poolCLS(hs []float32, rows, seqLen, hidden int) [][]float32 {
	out := make([][]float32, rows)
	flat := make([]float32, rows*hidden)
	for r := range rows {
		v := flat[r*hidden : (r+1)*hidden : (r+1)*hidden]
		copy(v, hs[r*seqLen*hidden:])
		Normalize(v)
		out[r] = v
	}
	return out
}

// Normalize scales v to unit L2 norm in place (a zero vector stays zero).
func Normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

// Dot is the dot product of two vectors of equal length; for unit vectors
// it is the cosine similarity.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Norm is the L2 norm of v.
func Norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

export function bomCrlf(): number {
  return 1;
}

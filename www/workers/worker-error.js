// What a worker posts when the core fails: the panic's message if the core
// panicked (a trapped instance may not answer), else the error's.

export function failureMessage(err, lastPanic) {
  let panic = null;
  try {
    panic = lastPanic() || null;
  } catch {
    // a trapped instance may not answer
  }
  return panic ? `the core panicked: ${panic}` : String((err && err.message) || err);
}

// Statements are few distinct texts, each run often: each is prepared once per
// connection, so PostgreSQL plans it once instead of at every call (a list's
// page-and-total statement takes longer to plan than to run). A text past the
// first thousand (never expected) runs unprepared.
const statementNames = new Map<string, string>();
export function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < 1000)
    statementNames.set(text, (name = `statement_${statementNames.size + 1}`));
  return name;
}

import type { ShownError } from "../api/errors.ts";

/** The API's message for a change, with the fields it names that no input shows. */
export function FormError({ error, shown = [] }: { error?: ShownError; shown?: string[] }) {
  if (!error) return null;
  const others = Object.entries(error.fields).filter(([f]) => !shown.includes(f));
  return (
    <div className="error" role="alert">
      {error.message}
      {others.length ? (
        <ul>
          {others.map(([f, d]) => (
            <li key={f}>
              <span className="mono">{f}</span> {d}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

import type { ReactNode } from "react";
import { describeError } from "../api/errors.ts";

/** A loading state that screen readers announce. */
export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

/** An error in words: the API's message. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const shown = describeError(error);
  return (
    <div className="error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {shown.message}
    </div>
  );
}

/** An empty state that says what is missing and what to do. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

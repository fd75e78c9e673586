import { useState } from "react";

/** Copies `text` to the clipboard and says so; shows the text to copy by hand when it cannot. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <span className="copy">
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setState("copied");
          } catch {
            setState("failed");
          }
        }}
      >
        {label}
      </button>
      <span role="status" className="muted">
        {state === "copied" ? "Copied" : state === "failed" ? `Copy by hand: ${text}` : ""}
      </span>
    </span>
  );
}

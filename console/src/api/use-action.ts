import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeError, type ShownError } from "./errors.ts";

/**
 * Runs a change through the API, shows its error in words (with the fields it names), and
 * reloads every list afterwards, so what is shown is what the API now has.
 */
export function useAction() {
  const queries = useQueryClient();
  const [error, setError] = useState<ShownError>();
  const [busy, setBusy] = useState(false);
  async function run<T>(change: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(undefined);
    try {
      const result = await change();
      await queries.invalidateQueries();
      return result;
    } catch (e) {
      setError(describeError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { run, error, busy, clear: () => setError(undefined) };
}

import { useState } from "react";
import { useAction } from "../api/use-action.ts";
import { Field } from "./field.tsx";
import { FormError } from "./form-error.tsx";

/**
 * An "Edit" button that opens a form for a resource's name and description and saves them with
 * `save` (an Update call with the mask `name,description`), showing the API's errors at the
 * fields they name.
 */
export function EditDetails(props: {
  what: string;
  name: string;
  description: string;
  save: (name: string, description: string) => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(props.name);
  const [description, setDescription] = useState(props.description);
  const action = useAction();
  if (!open) {
    return (
      <button
        type="button"
        aria-label={`Edit ${props.what} ${props.name}`}
        onClick={() => setOpen(true)}
      >
        Edit
      </button>
    );
  }
  const fields = action.error?.fields ?? {};
  return (
    <form
      className="inline-form"
      aria-label={`Edit ${props.what} ${props.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if ((await action.run(() => props.save(name, description))) !== undefined) setOpen(false);
      }}
    >
      <Field label="Name" value={name} onChange={setName} error={fields.name} required />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        error={fields.description}
      />
      <FormError error={action.error} shown={["name", "description"]} />
      <button type="submit" className="primary" disabled={action.busy}>
        Save
      </button>{" "}
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

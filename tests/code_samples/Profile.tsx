import React, { useState } from "react";
import type { User } from "./types";

interface ProfileProps {
  user: User;
  onSave: (user: User) => Promise<void>;
}

type Status = "idle" | "saving" | "error";

/** Shows and edits a user's profile. */
export function Profile({ user, onSave }: ProfileProps) {
  const [name, setName] = useState(user.name);
  const [status, setStatus] = useState<Status>("idle");

  async function save() {
    setStatus("saving");
    try {
      await onSave({ ...user, name });
      setStatus("idle");
    } catch (err) {
      setStatus("error");
    }
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); save(); }}>
      <input value={name} onChange={(e) => setName(e.target.value)} />
      <button disabled={status === "saving"}>Save</button>
      {status === "error" && <p className="error">Could not save</p>}
    </form>
  );
}

export class ProfileStore {
  private cache = new Map<string, User>();

  get(id: string): User | undefined {
    return this.cache.get(id);
  }
}

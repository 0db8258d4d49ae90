/** Service field names whose flag is not simply the name with dashes. */
const FLAG_NAMES: Record<string, string> = {
  phone_no: '--phone',
}

/** The flag a user types for a service field: `reference_2` -> `--reference-2`. */
export function flagForField(field: string): string {
  return FLAG_NAMES[field] ?? `--${field.replace(/_/g, '-')}`
}

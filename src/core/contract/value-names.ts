/**
 * A name the Helm chart writes into its templates (`.Values.<name>`): a kind's opt-in value and
 * a companion's key alike, so one rule and one message for both.
 */
export const HELM_VALUE_NAME = /^[a-z][a-zA-Z0-9]*$/;

/** What a name refused by HELM_VALUE_NAME should have been, as the error says it. */
export const HELM_VALUE_NAME_EXPECTED = 'a camelCase name (letters and digits, a lowercase letter first)';

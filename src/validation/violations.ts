/** One broken rule of the OpenAPI document: where (`body.amount`, `path.publicKey`) and what. */
export interface Violation {
  /** `body`, `path` or `query`, then the field's path, joined with dots; empty for the body as a whole */
  where: string;
  /** the JSON Schema keyword that failed (`required`, `pattern`, `type`, ...), or `415` for a body of the wrong media type */
  keyword: string;
  /** prism's own sentence */
  message: string;
}

// A problem with the data a person uploaded: the message says which file, which line or feature, what
// is wrong and what to do. The version ends `failed` with it, or the upload gets 422 when known at once.
export class InvalidSource extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSource";
  }
}

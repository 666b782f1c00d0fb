/** What a container tag may hold: the API's contract (v3, v4 and v5 alike). */
export const CONTAINER_TAG_PATTERN = '^[a-zA-Z0-9_:-]+$'

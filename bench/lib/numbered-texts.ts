/** Cheap distinct texts for load benches: the i-th report (prose) and the i-th chat, different for every i. */
const words = ['river', 'station', 'garden', 'winter', 'market', 'letter', 'engine', 'harbor', 'violin', 'forest']

export const numberedProse = (i: number) =>
	Array.from(
		{ length: 12 },
		(_, s) =>
			`The ${words[(i + s) % 10]} near team ${(i * 7 + s) % 41} reported ${(i + s) % 97} new items on day ${s + 1}.`,
	).join(' ')

export const numberedChat = (i: number) =>
	`Caroline: I went to the ${words[i % 10]} with my sister on day ${i}.\nMelanie: How was it? Did you meet team ${i % 23}?\nCaroline: Yes, they showed us ${i % 50} new ideas.`

/** A search for the numbered reports. */
export const numberedQuery = (i: number) => `${words[i % 10]} reported by team ${i % 41}`

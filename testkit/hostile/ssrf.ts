import ipaddr from 'ipaddr.js'

/** Every way to write a loopback, private or metadata address that a URL guard must see through, for a given port. */
export function ssrfTargets(port: number): { name: string; url: string }[] {
	const teredo = (client: string) => {
		const bytes = ipaddr.IPv4.parse(client)
			.toByteArray()
			.map((b) => b ^ 0xff)
		const word = (i: number) => ((bytes[i]! << 8) | bytes[i + 1]!).toString(16)
		return `2001:0:4136:e378:8000:63bf:${word(0)}:${word(2)}`
	}
	return [
		['IPv4 loopback', `127.0.0.1:${port}`],
		['IPv4 loopback, short form', `127.1:${port}`],
		['IPv4 loopback, decimal', `2130706433:${port}`],
		['IPv4 loopback, hex', `0x7f000001:${port}`],
		['unspecified 0.0.0.0', `0.0.0.0:${port}`],
		['localhost', `localhost:${port}`],
		['IPv6 loopback', `[::1]:${port}`],
		['IPv4-compatible ::127.0.0.1', `[::127.0.0.1]:${port}`],
		['IPv4-mapped ::ffff:127.0.0.1', `[::ffff:127.0.0.1]:${port}`],
		['IPv4-translated ::ffff:0:127.0.0.1', `[::ffff:0:127.0.0.1]:${port}`],
		['NAT64 64:ff9b::127.0.0.1', `[64:ff9b::127.0.0.1]:${port}`],
		['NAT64 local 64:ff9b:1::/48 (10.0.0.1)', `[64:ff9b:1:a00:0:100::]:${port}`],
		['6to4 2002:7f00:1::', `[2002:7f00:1::]:${port}`],
		['6to4 of 10.0.0.1', `[2002:a00:1::1]:${port}`],
		['Teredo client 127.0.0.1', `[${teredo('127.0.0.1')}]:${port}`],
		['private 10.0.0.1', `10.0.0.1:${port}`],
		['private 192.168.0.1', `192.168.0.1:${port}`],
		['cloud metadata 169.254.169.254', '169.254.169.254'],
		['cloud metadata IPv6 fd00:ec2::254', '[fd00:ec2::254]'],
		['metadata as IPv4-mapped', '[::ffff:169.254.169.254]'],
		['metadata as NAT64', '[64:ff9b::a9fe:a9fe]'],
	].map(([name, host]) => ({ name: name!, url: `http://${host}/drill` }))
}

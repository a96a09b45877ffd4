// The examples of npm scru128 1.0.1's README and type declarations, and the seed's,
// unchanged, type-checked against our index.d.ts (`npm run typecheck`, and
// test/typing.test.js). The lines marked @ts-expect-error must be type errors.
import { scru128, scru128String, Scru128Id, Scru128Generator, setLogger, TIMESTAMP_BIAS } from "scru128";

// The seed's example.
console.log(scru128());

// 1.0.1's README.
{
  // generate a new identifier object
  const x = scru128();
  console.log(String(x)); // e.g. "00S6GVKR1MH58KE72EJD87SDOO"
  console.log(BigInt(x.toHex())); // as a 128-bit unsigned integer

  // generate a textual representation directly
  console.log(scru128String()); // e.g. "00S6GVKR3F7R79I72EJF0J4RGC"
}

// 1.0.1's Scru128Id example.
{
  const x = Scru128Id.fromString("00Q1D9AB6DTJNLJ80SJ42SNJ4F");
  console.log(String(x));

  const y = Scru128Id.fromHex(0xd05a952ccdecef5aa01c9904e5a115n.toString(16));
  console.log(BigInt(y.toHex()));
}

// 1.0.1's Scru128Generator example.
{
  const g = new Scru128Generator();
  const x = g.generate();
  console.log(String(x));
  console.log(BigInt(x.toHex()));
}

// 1.0.1's scru128String example.
{
  const x = scru128String();
  console.log(x);
}

// The rest of 1.0.1's declarations, used as typed.
{
  const x: Scru128Id = Scru128Id.fromFields(1, 2, 3, 4);
  const fields: number[] = [x.timestamp, x.counter, x.perSecRandom, x.perGenRandom];
  const buffer: ArrayBuffer = x.toArrayBuffer();
  const same: boolean = Scru128Id.fromArrayBuffer(buffer).equals(x.clone());
  const order: number = x.compareTo(scru128());
  const json: string = x.toJSON();
  const bias: 1577836800000 = TIMESTAMP_BIAS;
  setLogger(console);
  setLogger({ error: () => {}, warn: () => {}, info: () => {} });
  const g = new Scru128Generator({ nextUint32: () => 42 });
  console.log(fields, same, order, json, bias, g.generate().toString());

  // @ts-expect-error the fields are read-only
  x.timestamp = 5;
  // @ts-expect-error the constructor is private, as in 1.0.1
  new Scru128Id();
  // @ts-expect-error fromString takes a string
  Scru128Id.fromString(5);
  // @ts-expect-error a random source needs nextUint32
  new Scru128Generator({});
  // @ts-expect-error a logger needs error, warn and info
  setLogger({ info: () => {} });
}

import { KINDS } from '../src/kinds';
import { ObjectClient } from '../src/kube/objects';
import { runConversion, startLocalConversion } from '../test/support/conversion';
import { installCrds as installCrdsConverting } from '../test/support/manifests';

/** The CRDs' conversion webhook for a benchmark or the soak; close() stops it (when it is theirs). */
export interface Conversion {
  close(): Promise<void>;
}

/**
 * The conversion webhook the CRDs point at (test/support's installCrds reads where from the
 * environment): the test run's when inside one, else the product's conversion server on
 * loopback of this process's own, whose close() also forgets it again. A kind served in more
 * than one version converts through it, so without it the API server refuses its objects.
 */
export async function conversionWebhook(): Promise<Conversion> {
  if (runConversion()) return { close: async () => undefined };
  const own = await startLocalConversion(KINDS);
  process.env.TEST_CONVERSION_URL = own.url;
  process.env.TEST_CONVERSION_CA_BUNDLE = own.caBundle;
  return {
    close: async () => {
      delete process.env.TEST_CONVERSION_URL;
      delete process.env.TEST_CONVERSION_CA_BUNDLE;
      await own.close();
    },
  };
}

/** Applies the synthesized CRDs, converting through a conversionWebhook, and waits until each is Established; close() stops that webhook. */
export async function installCrds(objects: ObjectClient): Promise<Conversion> {
  const conversion = await conversionWebhook();
  try {
    await installCrdsConverting(objects);
    return conversion;
  } catch (err) {
    await conversion.close();
    throw err;
  }
}

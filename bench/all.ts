/** `npm run bench`: the ExchangeRate figures (its options apply), then the CopyratorRule figures with their defaults. */
import { main as exchangeRates } from './controller';
import { main as copyrator } from './copyrator';

void (async () => {
  const code = await exchangeRates(process.argv.slice(2));
  process.exit(code || (await copyrator([])));
})();

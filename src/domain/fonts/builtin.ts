// The fonts every Mapstead has: Noto Sans (SIL Open Font License) embedded in the binary as files,
// so `bun build --compile` carries them and the server finds them from any working directory.
import notoSansRegular from "../../../node_modules/@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf" with { type: "file" };
import notoSansBold from "../../../node_modules/@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf" with { type: "file" };
import notoSansItalic from "../../../node_modules/@expo-google-fonts/noto-sans/400Regular_Italic/NotoSans_400Regular_Italic.ttf" with { type: "file" };

export interface BuiltinFont {
  name: string;
  /** path Bun.file can read: a real file in development, an embedded one in the compiled binary */
  path: string;
}

export const BUILTIN_FONTS: readonly BuiltinFont[] = [
  { name: "Noto Sans Regular", path: notoSansRegular },
  { name: "Noto Sans Bold", path: notoSansBold },
  { name: "Noto Sans Italic", path: notoSansItalic },
];

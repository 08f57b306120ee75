import React from "react";
import { Button } from "./button";

type Props = { label: string };

export function Panel({ label }: Props) {
  const onClick = () => track(label);
  return (
    <div className="panel">
      <Button onClick={onClick} onHover={handlers.hover} />
      <Icons.Star />
    </div>
  );
}

export const Header = (props: Props): JSX.Element => <h1>{format(props.label)}</h1>;

export const Fancy = React.memo(({ label }: Props) => {
  return <span>{shout(label)}</span>;
});
